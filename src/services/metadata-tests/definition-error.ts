/** A refusal of a test definition, and where: turned into a BAD_REQUEST by parseTestDefinition (definition.ts). */
export const PREFIX = 'Invalid test definition: ';

export class DefinitionError extends Error {
  constructor(readonly path: string, readonly problem: string) {
    super(path ? `${path}: ${problem}` : problem);
  }
}

export function fail(path: string, problem: string): never {
  throw new DefinitionError(path, problem);
}
