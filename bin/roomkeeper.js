#!/usr/bin/env node
// The `roomkeeper` command: runs the TypeScript CLI through tsx, as the project's scripts run.
require('tsx/cjs');
require('../cli/roomkeeper.ts').main();
