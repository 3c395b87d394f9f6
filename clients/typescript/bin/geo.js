#!/usr/bin/env node
// The command's entry, committed so that an install links it before the package is compiled (in this
// repository, npm's prepare step compiles it right after linking); the command itself is dist/cli.js.
import '../dist/cli.js';
