'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { mean } = require('../index.js');

test('mean', () => assert.strictEqual(mean([1, 2, 3, 6]), 3));
test('mean of nothing', () => assert.throws(() => mean([]), RangeError));
