import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

/** Long: a 64-bit integer carried as a JSON number (safe up to 2^53); numeric strings are accepted on input. */
function toLong(v: unknown): number {
  const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || !Number.isSafeInteger(n)) {
    throw new GraphQLError(`Long cannot represent ${JSON.stringify(v)}: expected a whole number`);
  }
  return n;
}

export const LongScalar = new GraphQLScalarType({
  name: 'Long',
  description: 'A 64-bit integer (milliseconds, versions, counts).',
  serialize: (v) => toLong(v),
  parseValue: (v) => toLong(v),
  parseLiteral(ast) {
    if (ast.kind === Kind.INT || ast.kind === Kind.STRING) return toLong(ast.value);
    throw new GraphQLError('Long must be a whole number', { nodes: [ast] });
  },
});
