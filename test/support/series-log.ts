import type Database from 'better-sqlite3';
import { timeseriesTables } from '../../src/storage/schema.js';
import { sqliteBeforeMigration19 } from './before-migration-19.js';

/**
 * Turns a SQLite database back into the form before migration 18: the log entries of time-series rows get their
 * values copied in (refs 4 cleared), and the time-series tables lose the offset column, its index and its triggers
 * (and what migration 19 changed is undone first).
 */
export function sqliteBeforeMigration18(db: Database.Database): void {
  sqliteBeforeMigration19(db);
  for (const { table: t, entityType, aspect } of timeseriesTables()) {
    db.prepare(`UPDATE almanac_change_log SET value = (SELECT event FROM ${t} WHERE log_seq = seq),
      system_metadata = (SELECT system_metadata FROM ${t} WHERE log_seq = seq), refs = NULL
      WHERE refs = 4 AND entity_type = ? AND aspect = ?`).run(entityType, aspect);
    db.exec(`DROP TRIGGER ${t}_log_deleted; DROP TRIGGER ${t}_log_updated; DROP INDEX ${t}_log_seq; ALTER TABLE ${t} DROP COLUMN log_seq`);
  }
  db.exec(`DELETE FROM almanac_migrations WHERE version = 18`);
}
