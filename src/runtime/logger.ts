// What the runtime (and the hedger beside it) logs through: the service's pino logger, or a test's capture.
export interface RuntimeLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
