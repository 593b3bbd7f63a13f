import { countParsedKeys } from './duplicate-fields.js';

/**
 * A JSON request body: its text, and how many keys `JSON.parse` kept from it
 * (counted before anything changed the parsed value). Duplicate keys are
 * visible only in the text; the count lets most bodies prove they have none
 * without scanning it (see findDuplicateFields).
 */
export interface JsonBody {
  text: string;
  parsedKeys: number;
}

/** Call right after `value = JSON.parse(text)`, before the value is changed. */
export function jsonBody(text: string, value: unknown): JsonBody {
  return { text, parsedKeys: countParsedKeys(value) };
}
