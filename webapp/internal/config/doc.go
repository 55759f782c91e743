// Package config parses the webapp's command line: the subcommand (serve,
// demo, migrate), its flags, and the environment variable behind every flag
// (VERDICT_WEBAPP_<FLAG>, plus the stack-wide VERDICT_LOG_FORMAT).
package config
