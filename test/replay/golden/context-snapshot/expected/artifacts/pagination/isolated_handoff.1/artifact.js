function paginate(items, page, pageSize) {
  if (!Number.isInteger(page) || page < 1) {
    throw new RangeError('page must be an integer >= 1');
  }
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new RangeError('pageSize must be an integer >= 1');
  }
  const size = Math.min(pageSize, 5);
  const totalPages = Math.ceil(items.length / size);
  if (page - 1 >= totalPages && items.length > 0) {
    throw new RangeError('page past the end');
  }
  const start = (page - 1) * size;
  return { items: items.slice(start, start + size), page: page, pageSize: pageSize, totalPages: totalPages, hasNext: page - 1 + 1 < totalPages };
}