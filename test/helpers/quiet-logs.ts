// Handlers log through Powertools; keep test output to what the tests print unless asked.
process.env.POWERTOOLS_LOG_LEVEL ??= process.env.ROOMKEEPER_TEST_LOG_LEVEL ?? 'SILENT';
