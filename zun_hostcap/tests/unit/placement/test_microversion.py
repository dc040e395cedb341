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

"""Negotiating the microversion of /placement from the WSGI environ."""

import fixtures

from zun_hostcap.api.placement import microversion
from zun_hostcap.tests import base


def _environ(text):
    return {} if text is None else {'HTTP_OPENSTACK_API_VERSION': text}


class TestVersionFromEnviron(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.MonkeyPatch(
            'zun_hostcap.api.placement.microversion._PARSED', {}))

    def test_the_same_answers_as_the_headers(self):
        for text in (None, 'placement 1.0', 'placement 1.39',
                     'placement latest', 'compute 2.1, placement 1.28',
                     'compute 2.1'):
            expected = microversion.extract_version(
                {} if text is None else {microversion.HEADER: text})
            for _twice in range(2):
                found = microversion.version_from_environ(_environ(text))
                self.assertEqual(expected, found, text)
                self.assertEqual(microversion.MAX_VERSION,
                                 found.max_version)

    def test_bad_versions_are_refused_every_time(self):
        for text, status in (('placement 1.40', 406), ('placement 2.0', 406),
                             ('placement one', 400)):
            for _twice in range(2):
                exc = self.assertRaises(
                    microversion.InvalidVersion,
                    microversion.version_from_environ, _environ(text))
                self.assertEqual(status, exc.status, text)
        self.assertEqual({}, microversion._PARSED)

    def test_the_memory_is_bounded(self):
        self.useFixture(fixtures.MonkeyPatch(
            'zun_hostcap.api.placement.microversion._PARSED_MAX', 3))
        for minor in range(10):
            self.assertEqual(
                (1, minor), microversion.version_from_environ(
                    _environ('placement 1.%d' % minor)))
        self.assertEqual(3, len(microversion._PARSED))
