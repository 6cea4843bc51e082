#!/usr/bin/env node
console.log("zot");
