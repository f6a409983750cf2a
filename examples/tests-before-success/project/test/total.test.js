import { test } from 'node:test';
import assert from 'node:assert/strict';
import { total } from '../src/total.js';

test('sums quantities', () => {
  assert.equal(total([{ cents: 250, quantity: 2 }]), 500);
});

test('applies the discount once', () => {
  assert.equal(total([{ cents: 1000, quantity: 1 }], 10), 900);
});
