// Package nginx holds the nginx configuration template of the edge and embeds
// it for the edge binary. The template is a Go text/template rendering a
// complete nginx.conf; its data is edge/internal/render.Data. Nothing here
// runs nginx: the edge (edge/) renders, validates and reloads.
package nginx
