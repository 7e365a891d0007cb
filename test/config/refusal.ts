// How the config tests read a refusal: the message of the ConfigError that resolving the document throws.
import { expect } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config/index.ts';
import type { ConfigDocument } from '../support/service.ts';

export function refusal(doc: ConfigDocument): string {
  try {
    resolveConfig(doc);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('config was accepted');
}
