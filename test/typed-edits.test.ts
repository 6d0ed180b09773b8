import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { editableDatasetProperties } from '../src/entities/dataset.js';
import { globalTags, ownership } from '../src/entities/shared-aspects.js';
import { rootActor } from '../src/model/actor.js';
import type { EntityService } from '../src/services/entities.js';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';

/**
 * The edit API is typed by aspect definitions: `modify` gets the stored values typed by the aspects named and
 * returns writes checked against them at compile time; the schemas still validate them when they are written.
 */
const URN = 'urn:li:dataset:(urn:li:dataPlatform:hive,typed_edits,PROD)';
const OWNER = { owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER' as const };
const STAMP = { time: 1_700_000_000_000, actor: 'urn:li:corpuser:datahub' };

/** Compile-time checks only (never called): `npx tsc --noEmit` fails when a write the types should refuse passes. */
export function typeChecks(entities: EntityService) {
  const actor = rootActor();
  void entities.editExisting(URN, [ownership, globalTags], (current) => {
    const owners: readonly { owner: string }[] | undefined = current.get('ownership')?.owners;
    void owners;
    // @ts-expect-error an aspect not named in the list cannot be read
    current.get('editableDatasetProperties');
    // An enum value written inline needs `as const`: TypeScript widens a literal in the callback's result to string.
    return { ownership: { owners: [{ owner: 'urn:li:corpuser:x', type: 'DATAOWNER' as const }] } };
  }, actor);
  // @ts-expect-error an owner's type is one of DataHub's ownership types
  void entities.editExisting(URN, [ownership], () => ({ ownership: { owners: [{ owner: 'urn:li:corpuser:x', type: 'BOSS' as const }] } }), actor);
  // @ts-expect-error tags are a list of tag associations, not of urns
  void entities.editExisting(URN, [globalTags], () => ({ globalTags: { tags: ['urn:li:tag:x'] } }), actor);
  // @ts-expect-error only the aspects named may be written
  void entities.editExisting(URN, [globalTags], () => ({ ownership: { owners: [] } }), actor);
}

forEachEngine('typed edits', (ctx) => {
  let t: TestApp;

  before(async () => {
    t = await startApp(ctx);
    await t.catalog.entities.ingest([
      { urn: URN, entityType: 'dataset', aspect: 'ownership', changeType: 'UPSERT', systemMetadata: null,
        value: { owners: [OWNER], lastModified: STAMP } },
      { urn: URN, entityType: 'dataset', aspect: 'globalTags', changeType: 'UPSERT', systemMetadata: null,
        value: { tags: [{ tag: 'urn:li:tag:a' }] } },
    ], rootActor());
  });
  after(async () => t.close());

  const stored = async () => Object.fromEntries([...await t.catalog.entities.getLatest(URN, ['ownership', 'globalTags', 'editableDatasetProperties'])]
    .map(([aspect, rec]) => [aspect, rec.value]));

  test('modify reads the typed values of the aspects named and its writes are stored', async () => {
    await t.catalog.entities.editExisting(URN, [ownership, globalTags, editableDatasetProperties], (current) => ({
      globalTags: { tags: [...(current.get('globalTags')?.tags ?? []), { tag: 'urn:li:tag:b' }] },
      editableDatasetProperties: { description: `owned by ${current.get('ownership')?.owners.map((o) => o.owner).join(', ')}` },
    }), rootActor());
    assert.deepEqual(await stored(), {
      ownership: { owners: [OWNER], lastModified: STAMP },
      globalTags: { tags: [{ tag: 'urn:li:tag:a' }, { tag: 'urn:li:tag:b' }] },
      editableDatasetProperties: { description: 'owned by urn:li:corpuser:jdoe' },
    });
  });

  test('a value the types would refuse is still refused at run time, and nothing is written', async () => {
    const before = await stored();
    await assert.rejects(t.catalog.entities.editExisting(URN, [ownership, globalTags], () => ({
      globalTags: { tags: [] },
      ownership: { owners: [{ owner: 'urn:li:corpuser:x', type: 'BOSS' as never }] },
    }), rootActor()), (e: Error & { status?: number }) => {
      assert.equal(e.status, 422);
      assert.match(e.message, /owners\[0\]\.type: 'BOSS' is not one of/);
      return true;
    });
    assert.deepEqual(await stored(), before);
  });
});
