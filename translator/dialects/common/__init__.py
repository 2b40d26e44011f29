"""What every dialect needs: the host passthrough, the backend interface, host expressions."""
