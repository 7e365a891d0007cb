// The desk CLI's command line, read into the request it sends: targets, fields typed by the control plane's
// own table, "default" for the config file's value, and the usage errors that send nothing.
import { describe, expect, test } from 'vitest';
import { parseCommand, UsageError } from '../../scripts/desk/cli.ts';

const env = { OPERATOR_TOKEN: 'from-the-environment' };
const request = (...argv: string[]) => parseCommand(argv, env).request;
const usage = (...argv: string[]) => {
  try {
    parseCommand(argv, env);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
};

describe('the desk CLI’s command line', () => {
  test('pause and resume: the kill switch, or one pair written either way', () => {
    expect(request('pause', '--all')).toEqual({ method: 'POST', path: '/v1/desk/pause', print: 'changes' });
    expect(request('resume', '--all').path).toBe('/v1/desk/resume');
    expect(request('pause', 'SOL/USDC').path).toBe('/v1/desk/pairs/SOL-USDC/pause');
    expect(request('resume', 'sol-usdc').path).toBe('/v1/desk/pairs/sol-usdc/resume');
  });

  test('set types each value by its field, and "default" puts the file’s value back', () => {
    expect(request('set', 'SOL/USDC', 'base_spread_bps=15', 'max_input=500.5', 'paused=off')).toEqual({
      method: 'PATCH',
      path: '/v1/desk/pairs/SOL-USDC',
      body: { base_spread_bps: 15, max_input: '500.5', paused: false },
      print: 'changes',
    });
    expect(request('set', 'hedging.SOL', 'band_bps=default').body).toEqual({ band_bps: null });
    expect(request('set', 'desk', 'sourcing_enabled=on', 'hedging_enabled=no').body).toEqual({
      sourcing_enabled: true,
      hedging_enabled: false,
    });
  });

  test('the URL and token come from the flags, else the environment, else loopback and none', () => {
    const flagged = parseCommand(['show', '--url', 'http://maker:8080/', '--token', 'mine'], env);
    expect(flagged).toMatchObject({ url: 'http://maker:8080', token: 'mine' });
    expect(parseCommand(['show'], { RFQ_MAKER_URL: 'http://m:1' })).toMatchObject({
      url: 'http://m:1',
      token: null,
    });
    expect(parseCommand(['log', '--limit', '7'], {})).toMatchObject({
      url: 'http://127.0.0.1:8080',
      request: { path: '/v1/desk/changes?limit=7', print: 'log' },
    });
  });

  test('what it cannot mean is a usage error, and nothing is sent', () => {
    expect(usage()).toBe('no command');
    expect(usage('frobnicate')).toMatch(/unknown command/);
    expect(usage('pause')).toMatch(/one pair/);
    expect(usage('pause', '--all', 'SOL/USDC')).toMatch(/takes no pair/);
    expect(usage('pause', 'SOLUSDC')).toMatch(/not a pair/);
    expect(usage('set', 'SOL/USDC')).toMatch(/field=value/);
    expect(usage('set', 'SOL/USDC', 'colour=red')).toMatch(/not a field of SOL\/USDC/);
    expect(usage('set', 'SOL/USDC', 'base_spread_bps=1.5')).toMatch(/whole number/);
    expect(usage('set', 'SOL/USDC', 'max_input=1e3')).toMatch(/decimal/);
    expect(usage('set', 'desk', 'paused=maybe')).toMatch(/on or off/);
    expect(usage('log', '--limit', '0')).toMatch(/--limit/);
    expect(usage('show', '--colour')).toMatch(/colour/);
  });
});
