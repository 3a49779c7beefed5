// Makes a page's address name from its title (see TASK.md).
export function slugify(title) {
  throw new Error('slugify is not written yet');
}
