import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { gql, type TypedDocument } from '../../gql';

/** Runs a mutation, then reloads the entity's page data (queryKey ['entity', urn]). Throws the server's message. */
export function useEntityMutation(urn: string) {
  const client = useQueryClient();
  return useCallback(async <R extends object, V>(document: TypedDocument<R, V>, variables: NoInfer<V>): Promise<R> => {
    const data = await gql(document, variables);
    const ok = Object.values(data)[0];
    if (ok === false) throw new Error('The server did not apply the change.');
    await client.invalidateQueries({ queryKey: ['entity', urn] });
    return data;
  }, [client, urn]);
}

/** The documentation an entity shows: the edited text first, then what ingestion wrote. */
export function documentationOf(e: Record<string, any>): string {
  const pick = (...vs: unknown[]) => vs.find((v) => typeof v === 'string' && v.trim() !== '') as string | undefined;
  return pick(e.editableProperties?.description, e.properties?.description, e.info?.description, e.description, e.groupProps?.description) ?? '';
}
