// A minimal nginx main config around an included http-level file, with
// every path in dir (so that nginx runs unprivileged and leaves nothing
// behind); extra goes into the http block.
export function nginxMain(dir, include, extra = "") {
  return `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  ${extra}
  include ${include};
}
`;
}

