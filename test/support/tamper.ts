/**
 * A secret with its last `n` characters changed, each to one it surely is not: a test that
 * appended fixed characters instead passed the right secret whenever the random one happened
 * to end in them (1 run in 64 for one character).
 */
export function tampered(secret: string, n = 1): string {
  const tail = [...secret.slice(-n)].map((c) => (c === 'A' ? 'B' : 'A')).join('');
  return `${secret.slice(0, -n)}${tail}`;
}
