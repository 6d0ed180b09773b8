import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Kind, parse, print, visit, type DefinitionNode, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode,
  type SelectionSetNode } from 'graphql';

/**
 * DataHub 0.12.1's web-app GraphQL documents (test/fixtures/datahub-webapp-graphql): each operation with every
 * fragment it spreads, from whichever file defines it, as the web app sends it.
 */
export const WEBAPP_DIR = path.resolve(import.meta.dirname, '../fixtures/datahub-webapp-graphql');

interface Loaded {
  fragments: Map<string, FragmentDefinitionNode>;
  /** Operation name → its definitions (createPost is defined in two files). */
  operations: Map<string, { file: string; node: OperationDefinitionNode }[]>;
}

let loaded: Loaded | undefined;
function load(): Loaded {
  if (loaded) return loaded;
  const fragments = new Map<string, FragmentDefinitionNode>();
  const operations = new Map<string, { file: string; node: OperationDefinitionNode }[]>();
  for (const file of readdirSync(WEBAPP_DIR).filter((n) => n.endsWith('.graphql')).sort()) {
    for (const d of parse(readFileSync(path.join(WEBAPP_DIR, file), 'utf8')).definitions) {
      if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
      else if (d.kind === Kind.OPERATION_DEFINITION && d.name) operations.set(d.name.value, [...(operations.get(d.name.value) ?? []), { file, node: d }]);
    }
  }
  return (loaded = { fragments, operations });
}

/** Every operation: name and the file it is in (an operation defined twice is listed twice). */
export function webappOperations(): { name: string; file: string }[] {
  return [...load().operations].flatMap(([name, defs]) => defs.map((d) => ({ name, file: d.file })));
}

/** One operation with its fragments, as a document; `file` picks one of several operations of that name. */
export function webappDocument(name: string, file?: string): DocumentNode {
  const { fragments, operations } = load();
  const op = (operations.get(name) ?? []).find((d) => file === undefined || d.file === file)?.node;
  if (!op) throw new Error(`the web app has no operation ${name}${file ? ` in ${file}` : ''}`);
  const defs: DefinitionNode[] = [op];
  const seen = new Set<string>();
  const walk = (node: DefinitionNode) => visit(node, { FragmentSpread(s) {
    if (seen.has(s.name.value)) return;
    seen.add(s.name.value);
    const frag = fragments.get(s.name.value);
    if (!frag) throw new Error(`fragment ${s.name.value} (spread by ${name}) is in no file`);
    defs.push(frag);
    walk(frag);
  } });
  walk(op);
  return { kind: Kind.DOCUMENT, definitions: defs };
}

/** The same, as text to send. */
export const webappText = (name: string, file?: string): string => print(webappDocument(name, file));

/** What Apollo Client sends: `__typename` added to every selection set but the operation's own. */
export function withTypename(doc: DocumentNode): DocumentNode {
  return visit(doc, {
    SelectionSet: {
      leave(node: SelectionSetNode, _key, parent) {
        if (parent && !Array.isArray(parent) && (parent as { kind?: string }).kind === Kind.OPERATION_DEFINITION) return undefined;
        if (node.selections.some((s) => s.kind === Kind.FIELD && s.name.value === '__typename')) return undefined;
        return { ...node, selections: [...node.selections, { kind: Kind.FIELD, name: { kind: Kind.NAME, value: '__typename' } }] };
      },
    },
  }) as DocumentNode;
}
