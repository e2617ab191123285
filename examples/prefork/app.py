"""The same tiny page as hello.php, as a WSGI app for gunicorn."""


def app(environ, start_response):
    body = b"Hello, world\n"
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
