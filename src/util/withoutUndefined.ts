/** Fields left undefined are left out (entries are compared and saved as plain data). */
export function withoutUndefined<T extends object>(entry: T): T {
  return Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined)) as T;
}
