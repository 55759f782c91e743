package nginx

import _ "embed"

// Template is the text/template source of the complete nginx.conf the edge
// renders (nginx.conf.tmpl in this directory).
//
//go:embed nginx.conf.tmpl
var Template string
