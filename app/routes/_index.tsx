import { pageMeta } from "~/utils/meta";
import { cachedPageHandle } from "~/utils/page-handle";

export const meta = pageMeta("Inicio", "Vive y trabaja en Asturias: habitaciones, espacios de trabajo y comunidad.");
export const handle = cachedPageHandle();

const FACILITIES = [
  {
    title: "Espacios de Trabajo",
    text: "Puestos de coworking con fibra, salas de reuniones y cabinas para llamadas, abiertos todos los días.",
  },
  {
    title: "Áreas Comunes",
    text: "Cocina compartida, salón con chimenea y terraza con vistas a la sierra para compartir con la comunidad.",
  },
  {
    title: "Zona de Descanso",
    text: "Habitaciones individuales, dobles y suites tranquilas para descansar después de la jornada.",
  },
];

export default function Home() {
  return (
    <>
      <section className="hero" aria-labelledby="hero-title">
        <h1 id="hero-title">Vive y trabaja en el corazón de Asturias</h1>
        <p>Coliving y coworking entre el mar y la montaña: tu habitación, tu escritorio y una comunidad que te espera.</p>
        <a className="button" href="/visita">
          Programa tu Visita
        </a>
      </section>
      <section aria-labelledby="facilities-title">
        <h2 id="facilities-title">Nuestras instalaciones</h2>
        <div className="grid-3">
          {FACILITIES.map((facility) => (
            <article key={facility.title} className="card">
              <h3>{facility.title}</h3>
              <p>{facility.text}</p>
            </article>
          ))}
        </div>
      </section>
    </>
  );
}
