-- Visit requests stored before visit_date/visit_time existed: read the day
-- and hour back from the composed message ("Fecha preferida: DD/MM/AAAA",
-- "Hora preferida: HH:MM", app/services/visitor.server.ts composeVisitMessage).
UPDATE `consultations`
SET
  `visit_date` = substr(mensaje, instr(mensaje, 'Fecha preferida: ') + 23, 4) || '-' ||
                 substr(mensaje, instr(mensaje, 'Fecha preferida: ') + 20, 2) || '-' ||
                 substr(mensaje, instr(mensaje, 'Fecha preferida: ') + 17, 2),
  `visit_time` = substr(mensaje, instr(mensaje, 'Hora preferida: ') + 16, 5)
WHERE `kind` = 'visita' AND `visit_date` IS NULL
  AND instr(mensaje, 'Fecha preferida: ') > 0 AND instr(mensaje, 'Hora preferida: ') > 0;
