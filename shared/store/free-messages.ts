import { RateLimitUnavailable, TooManyMessages } from '../errors.js';
import { type CounterClient, conditionFailed, secondsToMinuteEnd } from './budget.js';

/**
 * The bound on the MCP messages that spend no budget (the handshake, listings, ping, notifications,
 * prompts, the methodology resource): per API key and UTC minute, FREE_MESSAGES_PER_CALL times the
 * plan's per-minute ceiling, and never fewer than FREE_MESSAGES_FLOOR, so that a key whose plan allows
 * few calls (or whose budget is spent) can still connect and list what the server offers.
 */
export const FREE_MESSAGES_PER_CALL = 1;
export const FREE_MESSAGES_FLOOR = 60;

/** How many free messages a key may send in a minute, for a plan of `perMinute` calls. */
export const freeMessageCeiling = (perMinute: number): number => Math.max(FREE_MESSAGES_FLOOR, FREE_MESSAGES_PER_CALL * perMinute);

export interface FreeMessageCounter {
  /** Counts one free message of the key for the current UTC minute, or refuses it (429 rate_limited). */
  count(keyId: string, perMinute: number, now?: Date): Promise<void>;
}

/**
 * One item per key per minute on the budget table, beside the workspace's budget items (`budget#...`),
 * written the way the budget is: one UpdateItem that adds and checks in one atomic write (a resend after a
 * lost answer may count a message twice: a bound, not a meter). Per key, not
 * per workspace: a key looping on tools/list does not lock its neighbours out of the handshake. A counter
 * that cannot be reached refuses (503), as the budget does: a free message is still work for the service.
 */
export function createFreeMessageCounter(client: CounterClient, table: string): FreeMessageCounter {
  return {
    async count(keyId, perMinute, now = new Date()) {
      const minute = Math.floor(now.getTime() / 60_000);
      const ceiling = freeMessageCeiling(perMinute);
      try {
        await client.update({
          TableName: table,
          Key: { pk: { S: `free#${keyId}#${minute}` } },
          UpdateExpression: 'ADD #messages :one SET #expires = if_not_exists(#expires, :expires)',
          ConditionExpression: 'attribute_not_exists(#messages) OR #messages < :ceiling',
          ExpressionAttributeNames: { '#messages': 'messages', '#expires': 'expires_at' },
          ExpressionAttributeValues: {
            ':one': { N: '1' },
            ':ceiling': { N: String(ceiling) },
            ':expires': { N: String((minute + 2) * 60) },
          },
        });
      } catch (err) {
        if (conditionFailed(err)) throw new TooManyMessages(ceiling, secondsToMinuteEnd(now));
        throw new RateLimitUnavailable({ fault: 'free-messages', message: 'the free-message counter call failed' });
      }
    },
  };
}
