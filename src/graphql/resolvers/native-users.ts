import type { GraphQLContext } from '../context.js';

/** Native users: password reset tokens (MANAGE_USER_CREDENTIALS, as in DataHub). */
export const nativeUserResolvers = {
  Mutation: {
    createNativeUserResetToken: async (_: unknown, { input }: { input: { userUrn: string } }, ctx: GraphQLContext) => {
      return { resetToken: await ctx.catalog.authorized.identities.createResetToken(ctx.actor, input.userUrn) };
    },
  },
};
