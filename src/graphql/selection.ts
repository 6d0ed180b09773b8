import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * Whether the field being resolved selects `name` directly under it (through fragments too). Lets a resolver skip
 * work whose result nobody asked for: counting a search's facets costs more than finding its page once the matches
 * are many. Conservative: without resolve info, or under @skip/@include, the field counts as selected.
 */
export function selects(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'> | undefined, name: string): boolean {
  if (!info?.fieldNodes) return true;
  const visited = new Set<string>();
  const within = (set: SelectionSetNode | undefined): boolean => {
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value === name) return true;
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        if (within(s.selectionSet)) return true;
      } else if (!visited.has(s.name.value)) {
        visited.add(s.name.value);
        if (within(info.fragments?.[s.name.value]?.selectionSet)) return true;
      }
    }
    return false;
  };
  return info.fieldNodes.some((n) => within(n.selectionSet));
}
