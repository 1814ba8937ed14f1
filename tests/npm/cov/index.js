'use strict';

exports.add = (a, b) => a + b;

exports.mean = (xs) => {
	if (xs.length === 0)
		throw new RangeError('mean of nothing');
	return xs.reduce(exports.add, 0) / xs.length;
};

/* Never called by the tests: the report shows it uncovered. */
exports.median = (xs) => {
	const s = [...xs].sort((a, b) => a - b);
	const m = s.length >> 1;
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
