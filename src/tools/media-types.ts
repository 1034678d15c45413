/** Media type rules shared by request-body choice and response mapping. */

export function isJsonMediaType(mediaType: string): boolean {
  const base = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  return base === 'application/json' || base.endsWith('+json') || base === '*/*';
}

/** Request body preference: JSON first, then forms, then text, then whatever the spec lists first. */
const BODY_PREFERENCE: ((m: string) => boolean)[] = [
  (m) => m === 'application/json',
  (m) => isJsonMediaType(m) && m !== '*/*',
  (m) => m === 'application/x-www-form-urlencoded',
  (m) => m === 'multipart/form-data',
  (m) => m.startsWith('text/'),
];

export function preferredBodyMediaType<T extends { mediaType: string }>(contents: readonly T[]): T | undefined {
  for (const matches of BODY_PREFERENCE) {
    const found = contents.find((c) => matches(c.mediaType.toLowerCase()));
    if (found) return found;
  }
  return contents[0];
}
