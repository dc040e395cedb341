"""zun-hostcap-db-manage on a SQLite file."""

import os

import fixtures
from oslo_db.sqlalchemy import enginefacade

from zun_hostcap.cmd import db_manage
from zun_hostcap.db.sqlalchemy import api as sqla_api
from zun_hostcap.tests import base


class TestDBManage(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = self.useFixture(fixtures.TempDir()).path
        self.config = os.path.join(self.tmp, 'zun-hostcap.conf')
        with open(self.config, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\n' % self.tmp)
        # An unstarted facade reads [database] from the command's config.
        facade = enginefacade.transaction_context()
        self.addCleanup(sqla_api.main_context_manager.patch_factory(
            facade._factory))
        self.addCleanup(lambda: facade._factory._started and
                        sqla_api.get_engine().dispose())

    def _run(self, *args):
        out = self.useFixture(fixtures.StringStream('stdout')).stream
        err = self.useFixture(fixtures.StringStream('stderr')).stream
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', out))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', err))
        try:
            code = db_manage.main(['zun-hostcap-db-manage',
                                   '--config-file', self.config] +
                                  list(args))
        finally:
            self.conf.reset()
            self.conf.unregister_opt(db_manage.COMMAND_OPT)
        out.seek(0)
        err.seek(0)
        return code, out.read(), err.read()

    def test_upgrade_then_version(self):
        code, out, _err = self._run('version')
        self.assertEqual(0, code)
        # Log lines may precede the answer on stdout.
        self.assertEqual('None (no schema yet)', out.splitlines()[-1])
        code, out, _err = self._run('upgrade')
        self.assertEqual(0, code)
        self.assertEqual('Database is at revision 0001',
                         out.splitlines()[-1])
        self.assertTrue(os.path.exists(os.path.join(
            self.tmp, 'zun-hostcap.sqlite')))

    def test_unknown_revision_is_a_clear_error(self):
        code, _out, err = self._run('upgrade', 'nonsense')
        self.assertEqual(1, code)
        self.assertIn('zun-hostcap-db-manage:', err)
        self.assertIn('nonsense', err)
