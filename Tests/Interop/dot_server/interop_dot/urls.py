from django.contrib.auth import views as auth_views
from django.http import HttpResponse
from django.urls import include, path


def index(request):
    return HttpResponse("AuthFlow interop DOT server\n", content_type="text/plain")


urlpatterns = [
    path("", index),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
]
