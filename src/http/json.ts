// JSON serialization that writes bigint values as exact JSON integers, so int64 fields stay exact above 2^53
// (JSON.stringify throws on bigint, and a Number would round).
export function stringifyJson(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'string':
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        return `[${value.map((item) => (item === undefined ? 'null' : stringifyJson(item))).join(',')}]`;
      }
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      const parts: string[] = [];
      for (const [key, item] of Object.entries(value)) {
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        parts.push(`${JSON.stringify(key)}:${stringifyJson(item)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      return 'null';
  }
}
