-- The fixed facility catalogue of SPEC §3.
INSERT INTO `facilities` (`id`, `type`, `name`, `capacity`, `sort_order`) VALUES
  ('sala-reuniones-a', 'meeting-room', 'Sala de Reuniones A', 4, 1),
  ('sala-reuniones-b', 'meeting-room', 'Sala de Reuniones B', 8, 2),
  ('sala-conferencias', 'meeting-room', 'Sala de Conferencias', 20, 3),
  ('gimnasio-principal', 'gym', 'Gimnasio Principal', NULL, 4),
  ('sala-yoga', 'gym', 'Sala de Yoga', NULL, 5),
  ('piscina-principal', 'pool', 'Piscina Principal', NULL, 6),
  ('jacuzzi', 'pool', 'Jacuzzi', NULL, 7),
  ('estacionamiento-visitantes', 'parking', 'Estacionamiento Visitantes', NULL, 8),
  ('estacionamiento-temporal', 'parking', 'Estacionamiento Temporal', NULL, 9),
  ('sala-eventos-grande', 'event-room', 'Sala de Eventos Grande', NULL, 10),
  ('sala-eventos-pequena', 'event-room', 'Sala de Eventos Pequeña', NULL, 11);
