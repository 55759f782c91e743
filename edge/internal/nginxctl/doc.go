// Package nginxctl runs the nginx binary: it validates a configuration file
// (nginx -t), runs nginx as a child process in the foreground and reloads or
// stops it with signals, or reloads an nginx it does not own through its pid
// file. It knows nothing of templates or the registry.
package nginxctl
