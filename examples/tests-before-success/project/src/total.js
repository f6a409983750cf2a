// The total of a cart, in cents, after a percentage discount.
export function total(items, discountPercent = 0) {
  const sum = items.reduce((acc, item) => acc + item.cents, 0);
  return Math.round(sum * (1 - discountPercent / 100));
}
