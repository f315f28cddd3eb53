/**
 * The rows a continuous worker holds (claimed, not yet recorded), counted per fairness group
 * so that a claim can skip groups that already have their share of slots.
 */
export class HeldRows<Row extends { id: string }> {
  private readonly rows = new Map<string, Row>();
  /** Held rows per group; passed to the claim statement, which skips full groups. */
  readonly perGroup = new Map<string, number>();

  constructor(private readonly groupOf?: (row: Row) => string) {}

  get size(): number {
    return this.rows.size;
  }

  all(): Row[] {
    return [...this.rows.values()];
  }

  hold(row: Row): void {
    this.rows.set(row.id, row);
    if (this.groupOf) {
      const group = this.groupOf(row);
      this.perGroup.set(group, (this.perGroup.get(group) ?? 0) + 1);
    }
  }

  release(row: Row): void {
    if (!this.rows.delete(row.id) || !this.groupOf) return;
    const group = this.groupOf(row);
    const left = (this.perGroup.get(group) ?? 1) - 1;
    if (left > 0) this.perGroup.set(group, left);
    else this.perGroup.delete(group);
  }
}
