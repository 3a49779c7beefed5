function paginate(items, page, pageSize) {
  if (!Number.isInteger(page) || page < 1) {
    throw new RangeError('page must be an integer >= 1');
  }
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new RangeError('pageSize must be an integer >= 1');
  }
  const size = Math.min(pageSize, 3);
  const totalPages = Math.ceil(items.length / size);
  const start = (page - 1) * size;
  return { items: items.slice(start, start + size), page: page, pageSize: size, totalPages: totalPages, hasNext: page - 1 + 1 < totalPages };
}