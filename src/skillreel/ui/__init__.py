"""The local review page (``skillreel ui``): a small web app on 127.0.0.1 for reading skills, their
steps as a graph, the diff of a pending draft or heal proposal, the runs over time, and approving or
rejecting exactly as ``skillreel review`` does (the same use cases, the same checks).

``guard`` decides who may ask what (pure: page token, Host, same-origin); ``chart`` lays out the
runs chart (pure); ``app`` is the starlette application; ``server`` binds loopback and runs uvicorn.
Templates are Jinja2 with autoescaping on, so text a hostile page put into a selector is shown, never
run. No JavaScript is served.
"""
