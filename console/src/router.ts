/** Hash routes (`#/rooms/<id>`): the server needs no rewrites and a reload stays on the page. */
export type Route =
  | { readonly page: 'rooms' }
  | { readonly page: 'room'; readonly roomId: string }
  | { readonly page: 'servers' }
  | { readonly page: 'queues' }
  | { readonly page: 'catalog' }
  | { readonly page: 'logs'; readonly roomId?: string };

export const sections = [
  { page: 'rooms', label: 'Rooms' },
  { page: 'servers', label: 'Servers' },
  { page: 'queues', label: 'Queues' },
  { page: 'catalog', label: 'Catalog' },
  { page: 'logs', label: 'Logs' },
] as const;

export function parseRoute(hash: string): Route {
  const [page, id] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (page === 'rooms' && id) return { page: 'room', roomId: id };
  if (page === 'logs') return id ? { page: 'logs', roomId: id } : { page: 'logs' };
  if (page === 'servers' || page === 'queues' || page === 'catalog') return { page };
  return { page: 'rooms' };
}

export const roomHref = (roomId: string): string => `#/rooms/${encodeURIComponent(roomId)}`;
export const logsHref = (roomId?: string): string => (roomId ? `#/logs/${encodeURIComponent(roomId)}` : '#/logs');
