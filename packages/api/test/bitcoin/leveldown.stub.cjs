'use strict';
/** Stands in for the LevelDB binding bdb requires at load: memory mode never opens LevelDB. */
module.exports = function leveldown() {
  throw new Error('leveldown is not built here: the test node runs in memory');
};
