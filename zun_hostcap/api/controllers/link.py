"""Links in response documents."""

import pecan


def url(*parts):
    """Absolute URL of a path of this API, behind any proxy or mount."""
    return '/'.join([pecan.request.application_url.rstrip('/')] +
                    [part.strip('/') for part in parts])


def self_and_bookmark(resource, ident=''):
    """Zun's pair: the versioned URL and the unversioned bookmark."""
    if ident:
        return [{'href': url('v1', resource, ident), 'rel': 'self'},
                {'href': url(resource, ident), 'rel': 'bookmark'}]
    # A collection's links end in a slash, as Zun's do.
    return [{'href': url('v1', resource) + '/', 'rel': 'self'},
            {'href': url(resource) + '/', 'rel': 'bookmark'}]
