/** A page of a list in the spec's envelope (the partner case list, the review queue, delivery logs). */
export function pageOf<Item>(items: Item[], query: { page: number; pageSize: number }, totalCount: number) {
  return { items, page: query.page, pageSize: query.pageSize, totalCount, totalPages: Math.ceil(totalCount / query.pageSize) };
}
