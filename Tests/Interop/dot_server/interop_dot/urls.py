from django.contrib.auth import views as auth_views
from django.http import HttpResponse
from django.urls import include, path
from oauthlib.oauth2 import DeviceApplicationServer
from oauth2_provider.views import DeviceAuthorizationView

# Lifetime of codes from /o/device-authorization-short/, in seconds.
SHORT_DEVICE_CODE_LIFETIME = 3


class ShortLivedDeviceServer(DeviceApplicationServer):
    """DOT passes no expires_in to oauthlib: set it after construction."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._expires_in = SHORT_DEVICE_CODE_LIFETIME


class ShortLivedDeviceAuthorizationView(DeviceAuthorizationView):
    server_class = ShortLivedDeviceServer

    @classmethod
    def get_oauthlib_core(cls):
        # DOT caches the core in a class attribute found through hasattr(), so a
        # subclass would inherit the parent view's core (1800 s) once that one
        # has served a request. Cache on this class itself.
        if "_oauthlib_core" not in cls.__dict__:
            cls._oauthlib_core = cls.get_oauthlib_backend_class()(cls.get_server())
        return cls._oauthlib_core


def index(request):
    return HttpResponse("AuthFlow interop DOT server\n", content_type="text/plain")


urlpatterns = [
    path("", index),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("o/device-authorization-short/", ShortLivedDeviceAuthorizationView.as_view()),
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
]
