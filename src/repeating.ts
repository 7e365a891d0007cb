// A task run again and again on a timer: each run starts `intervalMs` after the last one ended (never two at
// once), and the timer never holds the process open. stop() ends it once the run under way, if any, has ended.
// The task handles its own failures: a rejection here would end the repetition.
export class Repeating {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    const loop = () => {
      this.timer = setTimeout(() => {
        this.running = this.task().finally(() => {
          this.running = null;
          if (this.timer !== null) loop();
        });
      }, this.intervalMs);
      this.timer.unref?.();
    };
    loop();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
