import { GraphQLError, Kind, type ASTVisitor, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext } from 'graphql';

/**
 * A validation rule that refuses documents selecting too many fields once fragments are expanded: depth alone
 * does not stop a wide query (or fragments that fan out) from asking for millions of values.
 */
export function costLimitRule(maxFields: number) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of context.getDocument().definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const count = (set: SelectionSetNode | undefined, budget: { left: number }, stack: Set<string>): void => {
      if (!set) return;
      for (const s of set.selections) {
        if (budget.left < 0) return;
        if (s.kind === Kind.FIELD) {
          budget.left--;
          count(s.selectionSet, budget, stack);
        } else if (s.kind === Kind.INLINE_FRAGMENT) {
          count(s.selectionSet, budget, stack);
        } else {
          const f = fragments.get(s.name.value);
          if (f && !stack.has(f.name.value)) {
            stack.add(f.name.value);
            count(f.selectionSet, budget, stack);
            stack.delete(f.name.value);
          }
        }
      }
    };
    return {
      OperationDefinition(node) {
        const budget = { left: maxFields };
        count(node.selectionSet, budget, new Set());
        if (budget.left < 0) {
          context.reportError(new GraphQLError(
            `Query is too costly: it selects more than ${maxFields} fields once fragments are expanded`, { nodes: [node] }));
        }
      },
    };
  };
}
