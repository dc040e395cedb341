#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Helpers the unit and functional tests share."""

import threading

from keystoneauth1 import loading as ks_loading


def all_at_once(count, work):
    """Run ``work(index)`` in ``count`` threads released together.

    :returns: the exceptions they raised, in no particular order.
    """
    errors, start = [], threading.Barrier(count)

    def run(index):
        start.wait()
        try:
            work(index)
        except Exception as exc:
            errors.append(exc)
    threads = [threading.Thread(target=run, args=(index,))
               for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def use_placement(test, url, token='admin'):
    """[placement] as an all-in-one sets it: admin_token, an endpoint.

    ``test`` has ``conf`` and ``flags()`` (zun_hostcap.tests.base).
    """
    # The plugin's options are registered when it is loaded; a test sets
    # one before.
    test.conf.register_opts(
        ks_loading.get_auth_plugin_conf_options('admin_token'),
        group='placement')
    test.flags(group='placement', auth_type='admin_token', token=token,
               endpoint_override=url)
