#!/bin/sh
# Runs its arguments as a child process, without exec, as a wrapper script
# often does (``wrapper.sh python3 hanging.py``): the engine the client
# starts is this shell, and the one that speaks KEI is its child.
"$@"
status=$?
exit $status
