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

"""Text from outside the process stays on one log line."""

import logging

import fixtures
from oslo_config import fixture as config_fixture
from oslo_log import formatters
from oslo_log import log
from oslotest import base

from zun_hostcap.common import context
from zun_hostcap.common import log_safety


class TestEscape(base.BaseTestCase):

    def test_control_characters_are_escaped(self):
        for text, expected in (
                ('a\nb', 'a\\nb'), ('a\r\nb', 'a\\r\\nb'),
                ('a\x00b', 'a\\x00b'), ('\x1b[31mred', '\\x1b[31mred'),
                ('a\tb', 'a\\tb'), ('a\x7fb', 'a\\x7fb'),
                ('a\x85b', 'a\\x85b'), ('a\x9bb', 'a\\x9bb'),
                ('a\u2028b', 'a\\u2028b'), ('a\u2029b', 'a\\u2029b')):
            self.assertEqual(expected, log_safety.escape(text))

    def test_other_text_is_left_as_it_is(self):
        for text in ('/v1/hosts/node-1.example.com', 'caf\u00e9 \u4e2d',
                     'back\\slash', ''):
            self.assertEqual(text, log_safety.escape(text))


class TestRecords(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.addCleanup(logging.setLogRecordFactory,
                        logging.getLogRecordFactory())
        log_safety.install()
        log_safety.install()   # idempotent
        self.log = self.useFixture(fixtures.FakeLogger(
            level=logging.DEBUG, format='%(levelname)s %(message)s'))
        self.logger = logging.getLogger('zun_hostcap.test')

    def test_arguments_are_escaped_not_the_format(self):
        self.logger.info('"GET %(path)s" status: %(status)d',
                         {'path': '/x\n2026 ERROR forged', 'status': 404})
        self.logger.warning('%s and %r', ValueError('a\nb'), 'c\x00')
        self.logger.error(ValueError('d\re'))
        self.assertEqual(
            'INFO "GET /x\\n2026 ERROR forged" status: 404\n'
            'WARNING a\\nb and \'c\\x00\'\n'
            'ERROR d\\re\n', self.log.output)

    def test_numbers_keep_their_formats(self):
        self.logger.info('%(n)d %(t).2f %(none)s', {'n': 3, 't': 0.125,
                                                    'none': None})
        self.assertEqual('INFO 3 0.12 None\n', self.log.output)

    def test_a_traceback_of_the_server_keeps_its_lines(self):
        try:
            raise RuntimeError('boom')
        except RuntimeError:
            self.logger.exception('Unexpected error serving %s', '/x\ny')
        lines = self.log.output.splitlines()
        self.assertEqual('ERROR Unexpected error serving /x\\ny', lines[0])
        self.assertEqual('Traceback (most recent call last):', lines[1])
        self.assertEqual('RuntimeError: boom', lines[-1])


class TestContext(base.BaseTestCase):

    def test_the_log_prefix_of_a_request_is_escaped(self):
        ctxt = context.RequestContext(
            user_id='tok\x1b[2Jen', project_id='p\nq',
            request_id='req-1', overwrite=False)
        values = ctxt.get_logging_values()
        self.assertEqual('tok\\x1b[2Jen', values['user'])
        self.assertEqual('p\\nq', values['project_id'])
        self.assertNotIn('\n', values['user_identity'])
        self.assertNotIn('\x1b', values['user_identity'])

    def test_oslo_log_shows_the_escaped_values(self):
        ctxt = context.RequestContext(user_id='a\nb', request_id='req-1',
                                      overwrite=False)
        conf = self.useFixture(config_fixture.Config()).conf
        log.register_options(conf)
        formatter = formatters.ContextFormatter(
            config=conf, fmt='%(request_id)s %(user_identity)s %(message)s')
        record = logging.LogRecord('x', logging.INFO, __file__, 1, 'hello',
                                   (), None)
        record.context = ctxt
        text = formatter.format(record)
        self.assertNotIn('\n', text)
        self.assertIn('a\\nb', text)
