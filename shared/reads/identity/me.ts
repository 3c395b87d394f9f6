import { rateLimitOf } from '../../store/budget.js';
import { iso, timestamp, uuid } from '../contracts/common.js';
import * as z from '../contracts/zod.js';
import { defineRead } from '../types.js';

export const meSchema = z
  .object({
    key: z.object({
      id: uuid,
      name: z.string().describe('Name given at creation.'),
      prefix: z.string().describe('Visible head of the key (first 12 characters); never the whole secret.'),
      scope: z
        .enum(['workspace', 'brand', 'analysis'])
        .describe('workspace: every analysis of the workspace; brand: the analyses of one brand; analysis: one analysis.'),
      brand: z.string().nullable().describe('Brand the key is limited to; null when not limited to one brand.'),
      pinned_analysis: z.string().nullable().describe('Slug of the analysis the key is limited to; null when not limited to one analysis.'),
      created_at: timestamp,
      expires_at: timestamp,
      last_used_at: timestamp.describe('Last use of the key, stamped at most once a minute; this call counts as a use.'),
    }),
    workspace: z.object({ id: uuid, name: z.string(), slug: z.string() }),
    plan: z.object({ key: z.string().describe('Technical plan identifier; never translated or renamed.') }),
    rate_limit: z.object({
      per_minute: z.number().int().min(0).describe('Calls per minute for the whole workspace (all its keys and MCP), from the plan.'),
      remaining: z.number().int().min(0).describe('Calls left in the current UTC minute, after this one.'),
      reset_after_seconds: z.number().int().min(0).max(60).describe('Seconds before the next available call; 0 while budget remains.'),
    }),
    reach: z.object({
      analyses: z
        .number()
        .int()
        .min(0)
        .describe(
          'Analyses the key reaches now (key scope ∩ its creator’s access), recomputed on every call; 0 is a valid key with an empty scope.',
        ),
    }),
  })
  .meta({ id: 'me', description: 'The calling key, its workspace, plan, budget and reach. Describes the key, not the data.' });

export const me = defineRead({
  name: 'get_me',
  family: 'identity',
  path: '/me',
  summary: 'Describe the calling key',
  description:
    'The calling API key, its workspace and plan, its scope (brand and pinned_analysis are null when the key is not limited to one), the per-minute call budget (ceiling, remaining, seconds to reset) and how many analyses it reaches (0: a valid key that reaches nothing). Use it to check a key, its reach or the budget left.',
  input: z.strictObject({}),
  output: meSchema,
  errors: [],
  run: async (ctx) => {
    const { key, workspace, plan, reach } = ctx.caller;
    return {
      key: {
        id: key.id,
        name: key.name,
        prefix: key.prefix,
        scope: key.scope,
        brand: key.brand,
        pinned_analysis: key.pinnedAnalysis,
        created_at: iso(key.createdAt),
        expires_at: iso(key.expiresAt),
        last_used_at: iso(key.lastUsedAt),
      },
      workspace: { ...workspace },
      plan: { key: plan.key },
      rate_limit: rateLimitOf(ctx.budget),
      reach: { analyses: reach.count },
    };
  },
});
