import type { GraphQLContext } from '../context.js';
import { authorize } from './privileges.js';

/** Native users: password reset tokens (MANAGE_USER_CREDENTIALS, as in DataHub). */
export const nativeUserResolvers = {
  Mutation: {
    createNativeUserResetToken: async (_: unknown, { input }: { input: { userUrn: string } }, ctx: GraphQLContext) => {
      await authorize(ctx, 'graphql.manageUserCredentials');
      return { resetToken: await ctx.catalog.nativeUsers.createResetToken(input.userUrn, ctx.actor) };
    },
  },
};
