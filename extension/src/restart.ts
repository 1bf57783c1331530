// How often a crashed server is started again before the extension gives up and says
// so in the status bar. Pure: the clock is passed in.

/** RestartPolicy allows up to maxRestarts restarts within windowMs; older crashes are forgotten. */
export class RestartPolicy {
  private crashes: number[] = [];

  constructor(
    readonly maxRestarts = 4,
    readonly windowMs = 3 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** onCrash records a crash and says whether the server may be restarted. */
  onCrash(): boolean {
    const t = this.now();
    this.crashes = this.crashes.filter((c) => t - c < this.windowMs);
    this.crashes.push(t);
    return this.crashes.length <= this.maxRestarts;
  }

  /** recent is the number of crashes inside the window. */
  get recent(): number {
    const t = this.now();
    return this.crashes.filter((c) => t - c < this.windowMs).length;
  }

  /**
   * delayMs is how long to wait before the next restart: none after the first crash,
   * then growing, so a server that dies at once is not restarted in a tight loop and
   * its log stays readable.
   */
  delayMs(): number {
    const n = this.recent;
    return n <= 1 ? 0 : Math.min(250 * 2 ** (n - 2), 4000);
  }

  /** reset forgets every crash (a person asked for a restart). */
  reset(): void {
    this.crashes = [];
  }

  /** gaveUpMessage says why the server stays stopped. */
  gaveUpMessage(): string {
    const minutes = Math.round(this.windowMs / 60000);
    return `The admit server crashed ${this.maxRestarts + 1} times in ${minutes} minutes and was not restarted. Calls are refused until it runs again. See the "admit" output.`;
  }
}
