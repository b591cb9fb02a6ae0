export function SiteFooter({ buildingName }: { buildingName: string }) {
  return (
    <footer className="footer">
      <div className="footer-inner">
        <section aria-labelledby="footer-links">
          <h2 id="footer-links">Enlaces</h2>
          <ul>
            <li><a href="/reservar">Reservar</a></li>
            <li><a href="/visita">Programa tu Visita</a></li>
            <li><a href="/consulta">Consulta</a></li>
            <li><a href="/reserva-consulta">Consulta de Reserva</a></li>
            <li><a href="/incidencias">Comunicar Avería</a></li>
            <li><a href="/privacidad">Privacidad</a></li>
          </ul>
        </section>
        <section aria-labelledby="footer-contact">
          <h2 id="footer-contact">Contacto</h2>
          <address>
            <div>{buildingName}</div>
            <div>Calle del Muelle 12, 33500 Llanes, Asturias</div>
            <div>
              <a href="mailto:hola@lacasona-coliving.es">hola@lacasona-coliving.es</a>
            </div>
            <div>
              <a href="tel:+34985400123">+34 985 400 123</a>
            </div>
          </address>
        </section>
        <section aria-labelledby="footer-social">
          <h2 id="footer-social">Síguenos</h2>
          <ul>
            <li><a href="https://www.instagram.com/" rel="noopener noreferrer">Instagram</a></li>
            <li><a href="https://www.facebook.com/" rel="noopener noreferrer">Facebook</a></li>
            <li><a href="https://www.linkedin.com/" rel="noopener noreferrer">LinkedIn</a></li>
          </ul>
        </section>
      </div>
    </footer>
  );
}
