'use strict';

exports.greet = (who) => `hello, ${who}`;
