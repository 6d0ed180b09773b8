import type Database from 'better-sqlite3';

/**
 * Turns a SQLite database back into the form before migration 19: the change log's entries name their urn, entity type,
 * aspect and actor as text again (their numbers' columns gone, the index by time back), and the edges are a table of text again, keyed
 * by source and indexed by destination, the urn table gone; the entities table has a rowid again.
 */
export function sqliteBeforeMigration19(db: Database.Database): void {
  const text = (column: string) => `${column} = COALESCE((SELECT u.urn FROM almanac_urns u WHERE u.id = ${column === 'entity_type' ? 'type' : column}_id), ${column})`;
  db.exec(`UPDATE almanac_change_log SET ${['urn', 'entity_type', 'aspect', 'actor'].map(text).join(', ')};
    ALTER TABLE almanac_change_log DROP COLUMN urn_id; ALTER TABLE almanac_change_log DROP COLUMN type_id;
    ALTER TABLE almanac_change_log DROP COLUMN aspect_id; ALTER TABLE almanac_change_log DROP COLUMN actor_id;
    CREATE INDEX almanac_change_log_at ON almanac_change_log (at);
    CREATE TABLE old_edges (source TEXT NOT NULL, type TEXT NOT NULL, destination TEXT NOT NULL,
      created_on INTEGER, created_actor TEXT, updated_on INTEGER, updated_actor TEXT, manual INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (source, type, destination)) WITHOUT ROWID;
    INSERT INTO old_edges SELECT * FROM almanac_relationships;
    DROP VIEW almanac_relationships; DROP TABLE almanac_edges; DROP TABLE almanac_urns;
    ALTER TABLE old_edges RENAME TO almanac_relationships;
    CREATE INDEX almanac_relationships_incoming ON almanac_relationships (destination, type, source);
    CREATE TABLE old_entities (urn TEXT PRIMARY KEY, entity_type TEXT NOT NULL, created_on INTEGER NOT NULL);
    INSERT INTO old_entities SELECT * FROM almanac_entities; DROP TABLE almanac_entities;
    ALTER TABLE old_entities RENAME TO almanac_entities; CREATE INDEX almanac_entities_type ON almanac_entities (entity_type, urn);
    DELETE FROM almanac_migrations WHERE version = 19`);
}
