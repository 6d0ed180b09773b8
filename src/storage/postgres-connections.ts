import pg from 'pg';

/**
 * A pg Client class whose connections get PostgreSQL's own statement_timeout (the server cancels a statement that
 * runs too long, where the driver's query_timeout only stops waiting for it). Set with a SET once connected, before
 * the pool hands the connection out: a startup parameter would be refused by PgBouncer.
 */
export function clientWithStatementTimeout(ms: number): typeof pg.Client {
  const statement = `SET statement_timeout = ${Math.floor(ms)}`;
  class TimedClient extends pg.Client {
    // The pool calls connect with a callback; other callers may await it.
    override connect(callback?: any): any {
      const ready = super.connect().then(() => this.query(statement)).then(() => this);
      if (!callback) return ready;
      ready.then(() => callback(null, this), (e: Error) => callback(e));
      return undefined;
    }
  }
  return TimedClient as unknown as typeof pg.Client;
}
